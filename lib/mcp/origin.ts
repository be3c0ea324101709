import { EXTENSION_ORIGIN } from '../protocol/identity';

/**
 * The Origins a browser page may send to comet-relay's loopback doors (`serve`'s /mcp and
 * attachments, `comet-relay mcp`'s upload listener): the door's own address and the extension.
 * Any other web page is refused, whatever token it holds. A request with no Origin (not from a
 * page) is not judged here.
 */
export function allowedOrigin(origin: string, port: number): boolean {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, EXTENSION_ORIGIN.replace(/\/$/, '')].includes(origin.toLowerCase());
}
