import { describe, expect, it } from 'vitest';
import { storedForm } from '../../lib/worker/browser/identity';

/** The host's form as the worker keeps it across restarts (lib/worker/browser/identity.ts). */
describe('the kept host form', () => {
  it('reads a form with its state folder, and one an earlier version kept as a bare command', () => {
    expect(storedForm({ command: 'comet-relay', home: "'/srv/my relay'" })).toEqual({ command: 'comet-relay', home: "'/srv/my relay'" });
    expect(storedForm('node /home/ann/comet-relay/dist/cli.js')).toEqual({ command: 'node /home/ann/comet-relay/dist/cli.js' });
  });

  it('reads a damaged value as none, never as a command to print', () => {
    for (const damaged of [undefined, null, '', 5, { home: '/srv' }, { command: 'comet-relay\nrm -rf ~' }, { command: 'comet-relay', home: 'a\u0007b' }]) {
      expect(storedForm(damaged), JSON.stringify(damaged)).toBeUndefined();
    }
  });
});
