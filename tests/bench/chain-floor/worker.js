// The worker: on to the native host, as comet-relay's worker sends a reply (one port, opened at the first message).
let host;
chrome.runtime.onConnect.addListener((page) => {
  page.onMessage.addListener((message) => {
    message.worker = performance.timeOrigin + performance.now();
    host ??= chrome.runtime.connectNative('dev.comet_relay.bench_floor');
    host.postMessage(message);
  });
});
