// The MCP process's place: listens on a socket (argv[2]), stamps what the host sends and writes it to stdout, one line each.
const fs = require('node:fs');
const net = require('node:net');
const epochMs = require('./clock.cjs');
const { reader } = require('./frames.cjs');
epochMs();
fs.rmSync(process.argv[2], { force: true });
net
  .createServer((host) => host.on('data', reader((message) => process.stdout.write(`${JSON.stringify({ ...message, peer: epochMs() })}\n`))))
  .listen(process.argv[2], () => process.stdout.write('listening\n'));
