import { hotPath, report } from './hot-path';

const only = process.argv[2];
if (!only || only === 'hot-path') {
  console.log('# Tool-call hot path (server-everything echo)');
  for (const line of report(await hotPath())) console.log(line);
}
process.exit(0);
