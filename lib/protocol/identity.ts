/**
 * Who we are, on every hop. The extension ID is pinned by the public key below (the manifest's `key`),
 * so the native host manifest can name it before the extension is ever installed.
 * The ID is derived from the key (sha256 of the DER, first 32 hex digits mapped to a–p);
 * tests/unit/identity.test.ts checks the two agree.
 */
export const PRODUCT_NAME = 'comet-relay';
export const NATIVE_HOST_NAME = 'com.comet_relay.host';
export const EXTENSION_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAr4jDSclVXqHwI6rc8VLHDXh+hG22HiUxEM+QQUA2qXTKN02mSi1nqYBV97G0BFRmaKAJ6R/p254XzOFJLwVKgx89ox7jv0HGRf+PT2pkwBC/Exks7p/vqD8eVciWV8NLXcaLo9RE7A/h4XWe5fIGv5RsSOO/uWiZR3bvFeZJom+SLcXXX2waU7pP7sZd9wf7alD7q3d1rmdUqj8DqiRewPqazxx//4MA4r0ZcLVuSoydaedENssAtQKBTP2+V7g81XjuuJzT91lk7uNcJTx7xi0lWJrUr9qWJ7ZLorMgT9qyRysf4p0jd4Qg9vj4RgG9VxFUNlOejSv7Ur3nE7na5wIDAQAB';
export const EXTENSION_ID = 'ecmkpcbekkgjknbkippgifninkcepnfa';
export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}/`;

/**
 * Bumped whenever a message on any hop changes shape. Both ends must agree exactly.
 * 2 (2026-12-02): the door a call came in by travels with it (hello, call origin), and the browser status says
 * why a Perplexity tab has no page script. A host of protocol 1 names no door, which the worker would take as
 * the public door's and refuse the tab list to a local client without saying why; the handshake says it instead.
 */
export const PROTOCOL_VERSION = 2;
