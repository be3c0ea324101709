// Native messaging's framing (a 4-byte little-endian length, then JSON), which comet-relay's socket uses too.
exports.frame = (message) => {
  const json = Buffer.from(JSON.stringify(message));
  const header = Buffer.alloc(4);
  header.writeUInt32LE(json.length, 0);
  return Buffer.concat([header, json]);
};
exports.reader = (onMessage) => {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32LE(0)) {
      const length = pending.readUInt32LE(0);
      onMessage(JSON.parse(pending.toString('utf8', 4, 4 + length)));
      pending = pending.subarray(4 + length);
    }
  };
};
