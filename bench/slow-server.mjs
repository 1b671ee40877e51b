// An upstream-bound workload for the scale-out bench: one stdio tool that
// takes SLOW_MS per call and serves at most SLOW_LIMIT calls at once per
// process (the rest queue), like an API client with a connection pool.
import { serveStdio } from './stdio-mcp.mjs';

const delay = Number(process.env.SLOW_MS ?? 20);
const limit = Number(process.env.SLOW_LIMIT ?? 4);
let running = 0;
const queue = [];
function run(params, reply) {
  running++;
  setTimeout(() => {
    running--;
    reply({ content: [{ type: 'text', text: `done ${params.arguments?.n ?? 0}` }] });
    const next = queue.shift();
    if (next) run(...next);
  }, delay);
}
serveStdio({
  name: 'slow',
  tools: [{ name: 'work', description: 'Takes a while', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }],
  call: (params, reply) => (running < limit ? run(params, reply) : queue.push([params, reply])),
});
