import { startPageAgent } from '../lib/page/agent';
import { PERPLEXITY_MATCHES } from '../lib/protocol/urls';

export default defineContentScript({
  matches: PERPLEXITY_MATCHES,
  runAt: 'document_idle',
  main() {
    startPageAgent();
  },
});
