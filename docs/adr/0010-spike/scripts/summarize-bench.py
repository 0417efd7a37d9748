# Median over runs of each configuration's p50/p95 (ms per step), from results/bench.jsonl.
import json, statistics as st, collections
rows = [json.loads(l) for l in open('results/bench.jsonl') if l.startswith('{')]
g = collections.defaultdict(list)
for r in rows:
    if 'lib' in r:
        key = f"absurd | {r['target']} {r.get('pg','') or ('PGlite dir' )}"
        g[key].append(('absurd', r['stepMs']['p50'], r['stepMs']['p95'], None, None, r['spawnToDoneMs']['p50']))
    else:
        key = f"dbos | {r['target']} {r.get('pg','') or 'PGlite dir'} | baseline via {r['baselineVia']}"
        g[key].append(('dbos', r['dbosStepMs']['p50'], r['dbosStepMs']['p95'], r['baselineStepMs']['p50'], r['baselineStepMs']['p95'], r['dbosWorkflowMs']['p50']))
print(f"{'config':75} runs  lib_p50 lib_p95 base_p50 base_p95 wf_p50  lib_p50 range over runs")
for k, v in g.items():
    med = lambda i: st.median([x[i] for x in v]) if v[0][i] is not None else float('nan')
    print(f"{k:75} {len(v):4} {med(1):7.2f} {med(2):7.2f} {med(3):8.2f} {med(4):8.2f} {med(5):6.1f}  {min(x[1] for x in v):.2f}-{max(x[1] for x in v):.2f}")
