// The SDK client adds an abort listener per request to one long-lived signal; its
// warnings would drown the figures. Other warnings still print.
process.removeAllListeners('warning');
process.on('warning', (w) => void (w.name === 'MaxListenersExceededWarning' || console.error(w)));
import { hotPath, report } from './hot-path';
import { logFanout } from './log-fanout';
import { searchLatency } from './search-latency';
import { retrieval } from './retrieval';
import { footprint } from './footprint';
import { scaleOut } from './scale-out';

const only = process.argv[2];
if (!only || only === 'hot-path') {
  console.log('# Tool-call hot path (server-everything echo)');
  for (const line of report(await hotPath())) console.log(line);
}
if (!only || only === 'log-fanout') {
  console.log('\n# Log fan-out');
  for (const line of await logFanout()) console.log(line);
}
if (!only || only === 'retrieval') {
  console.log('\n# Smart-routing retrieval quality');
  for (const line of retrieval()) console.log(line);
}
if (!only || only === 'search') {
  console.log('\n# Smart-routing search latency (synthetic catalogue)');
  for (const line of searchLatency()) console.log(line);
}
if (!only || only === 'footprint') {
  console.log('\n# Footprint (pnpm start, idle, 100 servers, 200 sessions)');
  for (const line of await footprint()) console.log(line);
}
if (!only || only === 'scale-out') {
  console.log('\n# Scale-out (HAProxy, 1 vs 3 replicas on PostgreSQL)');
  // Needs the machine's PostgreSQL and Debian's haproxy, as the replica tests do.
  try {
    for (const line of await scaleOut()) console.log(line);
  } catch (err) {
    console.log(`not measured: ${(err as Error).message} (needs PostgreSQL on 127.0.0.1:5432 and haproxy; .ci/run installs both)`);
  }
}
process.exit(0);
