// `wxt build` for `npm run build`, with the terminal codes of WXT's spinner and colours taken out
// when the output is not a terminal (CI logs, a pipe, a test runner): nanospinner writes its
// cursor moves (ESC[1G) and WXT its colours whatever the output is, and NO_COLOR does not stop
// either. On a terminal the output passes through as WXT wrote it.
import { spawn } from 'node:child_process';
import path from 'node:path';

const wxt = path.join(import.meta.dirname, '..', 'node_modules', 'wxt', 'bin', 'wxt.mjs');
const child = spawn(process.execPath, [wxt, 'build', ...process.argv.slice(2)], { stdio: ['inherit', 'pipe', 'pipe'] });
// CSI sequences (ESC [ … letter): colours, cursor moves, line clears.
const CODES = /\x1b\[[0-9;?]*[A-Za-z]/g;
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  from.setEncoding('utf8');
  from.on('data', (text) => to.write(to.isTTY ? text : text.replace(CODES, '')));
}
child.on('error', (error) => {
  console.error(`Could not start wxt build: ${error.message}. Run npm ci first.`);
  process.exitCode = 1;
});
child.on('close', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
