// The native host the browser starts: each message from the worker, stamped, on to the peer's socket (argv[2]).
const net = require('node:net');
const epochMs = require('./clock.cjs');
const { frame, reader } = require('./frames.cjs');
epochMs();
const peer = net.connect(process.argv[2]);
peer.on('error', () => process.exit(1));
process.stdin.on('data', reader((message) => peer.write(frame({ ...message, host: epochMs() }))));
process.stdin.on('end', () => process.exit(0));
