// The content script: the page's main world says when its own fetch had the stream's end (as the sim's page does);
// a message of an answer's size goes to the worker at once, stamped with the page's moment.
const toWorker = chrome.runtime.connect({ name: 'floor' });
const answer = 'x'.repeat(1200);
window.addEventListener('floor-stream-ended', (event) => toWorker.postMessage({ t: Number(event.detail), answer }));
