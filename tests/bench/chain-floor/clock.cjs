// Epoch ms with a fraction, comparable with Chromium's: Node's performance.timeOrigin can be milliseconds off in a
// child process, so the first tick of Date.now() is pinned to hrtime (as lib/relay/host.ts epochMs).
let base;
module.exports = function epochMs() {
  if (!base) {
    const start = Date.now();
    let epoch = start;
    while (epoch === start) epoch = Date.now();
    base = { epoch, hr: process.hrtime.bigint() };
  }
  return base.epoch + Number(process.hrtime.bigint() - base.hr) / 1e6;
};
