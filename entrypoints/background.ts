import { startWorker } from '../lib/worker/main';

export default defineBackground({
  type: 'module',
  main() {
    startWorker();
  },
});
