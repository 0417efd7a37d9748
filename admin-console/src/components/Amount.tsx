import { formatAmount, groupDigits, unitsOf } from '../format.ts';

/** A ledger amount, human-formatted, with the raw units under it. */
export function Amount({ rail, amount, currency }: { rail: string; amount: string; currency?: string }) {
  return (
    <span className="amount" title={`${amount} ${unitsOf(rail)}`}>
      {formatAmount(rail, amount, currency)}
      <span className="units">
        {groupDigits(amount)} {unitsOf(rail)}
      </span>
    </span>
  );
}
