import { useState } from 'react';
import { api, type Ledger, type MoneySummary } from '../api.ts';
import { Amount } from '../components/Amount.tsx';
import { LedgerStateBadge } from '../components/Badge.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Empty, LoadError } from '../components/Empty.tsx';
import { JobLink } from '../components/Link.tsx';
import { Time } from '../components/Time.tsx';
import { plural, sumAmounts } from '../format.ts';
import { useAction, useLive } from '../hooks.ts';

const WINDOWS = [7, 14, 30, 90] as const;

/** The books, live: totals per day and rail, and what needs an operator (failed refunds first). */
export function Money() {
  const [days, setDays] = useState<number>(14);
  const live = useLive<MoneySummary>((h) => api.money.watch.subscribe({ days }, h), String(days));
  const m = live.data;
  return (
    <section>
      <div className="page-head">
        <h1>Money</h1>
        <span className="muted">live</span>
        <span className="spacer" />
        <label className="inline">
          Window
          <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {WINDOWS.map((d) => (
              <option key={d} value={d}>
                {d} days
              </option>
            ))}
          </select>
        </label>
      </div>
      <LoadError error={live.error} />
      {!m && !live.error && <p className="muted">Loading…</p>}
      {m && (
        <>
          <Totals m={m} days={days} />

          <h2>
            Refunds failed <span className="count-pill">{m.refunds_failed.length}</span>
          </h2>
          <p className="hint">
            The refunder gave up on these. Reconcile hands one back to it (safely: a signed chain transfer is decided by its hash first); Resolve records one
            settled by hand.
          </p>
          <LedgerTable rows={m.refunds_failed} empty="No failed refund." withActions />

          <h2>
            Refunds pending <span className="count-pill">{m.refunds_pending.length}</span>
          </h2>
          <LedgerTable rows={m.refunds_pending} empty="No refund on its way." />

          <h2>
            Open holds <span className="count-pill">{m.open_holds.length}</span>
          </h2>
          <LedgerTable rows={m.open_holds} empty="No hold is open." />

          <h2>
            Charges pending <span className="count-pill">{m.charges_pending.length}</span>
          </h2>
          <LedgerTable rows={m.charges_pending} empty="No charge is being reconciled." />
        </>
      )}
    </section>
  );
}

function Totals({ m, days }: { m: MoneySummary; days: number }) {
  // Over the window, per rail and kind: what was done (the money that moved).
  const byRailKind = new Map<string, { rail: string; kind: string; currency: string; count: number; amounts: string[] }>();
  for (const d of m.days) {
    if (d.state !== 'done') continue;
    const k = `${d.rail}/${d.kind}`;
    const row = byRailKind.get(k) ?? { rail: d.rail, kind: d.kind, currency: d.currency, count: 0, amounts: [] };
    row.count += d.count;
    row.amounts.push(d.amount);
    byRailKind.set(k, row);
  }
  return (
    <>
      <h2>Last {days} days</h2>
      {m.days.length === 0 ? (
        <Empty>No money moved in this window (billing may be off).</Empty>
      ) : (
        <>
          <div className="tiles">
            {[...byRailKind.values()].map((r) => (
              <div className="tile" key={`${r.rail}/${r.kind}`}>
                <div className="tile-label">
                  {r.rail} · {r.kind} · done
                </div>
                <div className="tile-value">
                  <Amount rail={r.rail} amount={sumAmounts(r.amounts)} currency={r.currency} />
                </div>
                <div className="muted small">{plural(r.count, 'row')}</div>
              </div>
            ))}
          </div>
          <table className="totals">
            <thead>
              <tr>
                <th>Day (UTC)</th>
                <th>Rail</th>
                <th>Kind</th>
                <th>State</th>
                <th className="num">Rows</th>
                <th className="num">Amount</th>
              </tr>
            </thead>
            <tbody>
              {m.days.map((d, i) => (
                <tr key={`${d.day}/${d.rail}/${d.kind}/${d.state}/${d.currency}`} className={i > 0 && m.days[i - 1]?.day === d.day ? '' : 'group-start'}>
                  <td>{i > 0 && m.days[i - 1]?.day === d.day ? '' : d.day}</td>
                  <td>{d.rail}</td>
                  <td>{d.kind}</td>
                  <td>
                    <LedgerStateBadge state={d.state} />
                  </td>
                  <td className="num">{d.count}</td>
                  <td className="num">
                    <Amount rail={d.rail} amount={d.amount} currency={d.currency} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}

function LedgerTable({ rows, empty, withActions = false }: { rows: Ledger[]; empty: string; withActions?: boolean }) {
  if (rows.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table className="ledger">
      <thead>
        <tr>
          <th>#</th>
          <th>Created</th>
          <th>Job</th>
          <th>Rail</th>
          <th>Kind</th>
          <th>State</th>
          <th className="num">Amount</th>
          <th>Payer</th>
          <th>Reference</th>
          <th className="num">Tries</th>
          <th>Last error</th>
          {withActions && <th />}
        </tr>
      </thead>
      <tbody>
        {rows.map((l) => (
          <tr key={l.id} data-ledger-id={l.id}>
            <td>{l.id}</td>
            <td>
              <Time at={l.created_at} />
            </td>
            <td>{l.job_id ? <JobLink id={l.job_id} /> : ''}</td>
            <td>{l.rail}</td>
            <td>{l.kind}</td>
            <td>
              <LedgerStateBadge state={l.state} />
            </td>
            <td className="num">
              <Amount rail={l.rail} amount={l.amount} currency={l.currency} />
            </td>
            <td className="mono small">{l.payer ?? ''}</td>
            <td className="mono small">{l.chain_tx_hash ?? l.reference ?? l.charge_reference ?? ''}</td>
            <td className="num">{l.attempts}</td>
            <td className="error-cell">{l.last_error ?? ''}</td>
            {withActions && (
              <td>
                <RefundActions refund={l} />
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RefundActions({ refund }: { refund: Ledger }) {
  const { busy, run } = useAction();
  return (
    <div className="actions tight">
      <ConfirmButton
        label="Reconcile"
        title={`Reconcile refund #${refund.id}`}
        disabled={busy}
        onConfirm={() =>
          run(
            () => api.money.reconcileRefund.mutate({ id: refund.id }),
            (r) => `Refund #${r.id} is now ${r.state}`,
          )
        }
      >
        {refund.chain_tx_hash
          ? 'Its transfer was signed: the refunder decides it by that hash first (landed, dropped, or re-broadcast), never sending it twice.'
          : 'The refund is queued again with a fresh attempt budget, and the refunder runs now.'}
      </ConfirmButton>
      <ConfirmButton
        label="Resolve"
        title={`Resolve refund #${refund.id} by hand`}
        danger
        disabled={busy}
        note="How it was settled (at least 3 characters)"
        noteMin={3}
        onConfirm={(note) => run(() => api.money.resolveRefund.mutate({ id: refund.id, note }), `Refund #${refund.id} recorded as settled`)}
      >
        Records the refund as done, settled outside the service (a manual transfer), with your note.
      </ConfirmButton>
    </div>
  );
}
