import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Settings } from '../config/settings';
import { accessOf, doorRefused, type LocalOperation, type Operation, reachableAt } from '../protocol/access';
import type { Door } from '../protocol/doors';
import { RelayError } from '../protocol/errors';
import type { MethodName, MethodParams, MethodResult } from '../protocol/methods';
import { type CallOptions, RelayClient } from '../relay/client';
import type { Logger } from '../relay/logger';
import { cliCommand } from '../relay/invocation';
import { expandHome } from '../relay/paths';
import { CLIENT_NAME_MAX, CLIENT_VERSION_MAX } from '../protocol/identity';
import { clip } from '../protocol/text/clip';

/**
 * What a tool sees of the browser: typed calls through this session's own relay connection.
 * The connection is opened once the MCP client has said who it is, so the side panel can name it.
 */
export interface GatewayOptions {
  home: string;
  settings: Settings;
  transport: 'stdio' | 'http';
  logger?: Logger;
  /** Browser executables to try when no browser is connected and COMET_PATH is unset. */
  browserCandidates?: () => string[];
  /** `--read-only`: refuse every acting operation (lib/protocol/access.ts), whichever tool asks. */
  readOnly?: boolean;
  /**
   * Runs just before comet-relay starts a browser itself (Comet's Local State switch, lib/install/unblock.ts);
   * what it did, if anything worth saying, is logged and told to the caller.
   */
  beforeLaunch?: (executable: string) => string | undefined;
  /** The door this session came in by (lib/mcp/http.ts knows it from the Host and token); default loopback. */
  door?: Door;
}

export interface ToolBrowser {
  call<M extends MethodName>(method: M, params: MethodParams<M>, options?: CallOptions): Promise<MethodResult<M>>;
  hostStatus(options?: CallOptions): ReturnType<RelayClient['hostStatus']>;
  ensureBrowser(signal?: AbortSignal): Promise<{ launched: boolean; note?: string }>;
  /** The same checks for an operation of this process's own (LOCAL_ACCESS), e.g. storing an upload: throws to refuse. */
  admit?(operation: LocalOperation): Promise<void>;
}

export class BrowserGateway {
  private relay?: RelayClient;
  private clientInfo = { name: 'unknown client', version: undefined as string | undefined };

  constructor(private readonly options: GatewayOptions) {}

  get door(): Door {
    return this.options.door ?? 'loopback';
  }

  /** Called when the MCP client's `initialize` arrives; attaches at once so the panel shows it. */
  identify(client: { name: string; version?: string }): void {
    // An MCP client names itself as it likes; the hello carries a bounded name (relay review R1: a longer one had
    // every call of the session fail as a hung host).
    this.clientInfo = { name: clip(String(client.name ?? ''), CLIENT_NAME_MAX), version: client.version === undefined ? undefined : clip(String(client.version), CLIENT_VERSION_MAX) };
    void this.client().attach();
  }

  call<M extends MethodName>(method: M, params: MethodParams<M>, options?: CallOptions): Promise<MethodResult<M>> {
    return this.client().call(method, params, options);
  }

  /**
   * The view one tool call gets: every browser call carries which tool asked and why, and may only
   * be an operation the tool declared (`uses`); with --read-only, only one that reads.
   */
  scoped(origin: NonNullable<CallOptions['origin']>, uses: readonly Operation[], trace?: CallOptions['trace']): ToolBrowser {
    const allow = async (operation: Operation, params: Record<string, unknown> = {}) => {
      if (!uses.includes(operation)) {
        throw new RelayError('INTERNAL', `The tool ${origin.tool} called ${operation}, which it does not declare in its \`uses\`; this is a bug in comet-relay.`);
      }
      // The worker refuses it too (it knows the door from the host); said here without a round trip.
      if (!reachableAt(this.door, operation)) throw doorRefused(this.door, origin.tool, operation);
      if (this.options.readOnly && accessOf(operation, params) === 'act') {
        throw new RelayError('PERMISSION_DENIED', `comet-relay was started with --read-only, so ${origin.tool} may not ${operation === 'browser.launch' ? 'start a browser' : `run ${operation}`}. Start it without --read-only to allow acting tools.`);
      }
    };
    return {
      call: async (method, params, options) => {
        await allow(method, params as Record<string, unknown>);
        return this.call(method, params, { ...options, origin, ...(trace ? { trace } : {}) });
      },
      hostStatus: async (options) => {
        await allow('host.status');
        return this.hostStatus({ ...options, origin });
      },
      ensureBrowser: async (signal) => {
        await allow('browser.launch');
        return this.ensureBrowser(signal);
      },
      admit: (operation) => allow(operation),
    };
  }

  hostStatus(options?: CallOptions) {
    return this.client().hostStatus(options);
  }

  /**
   * Makes sure a browser is connected, starting one (COMET_PATH, else a known Comet/Chromium
   * location) when none is, like the reference's launchOrConnect. Returns whether it launched.
   */
  async ensureBrowser(signal?: AbortSignal): Promise<{ launched: boolean; note?: string }> {
    try {
      await this.client().hostStatus({ signal, timeoutMs: 5000 });
      return { launched: false };
    } catch (error) {
      const relayError = RelayError.from(error);
      if (relayError.code !== 'EXTENSION_NOT_CONNECTED') throw relayError;
      const executable = this.findExecutable();
      if (!executable) throw relayError;
      // Nothing started, and Comet's Local State untouched, for a caller that is gone.
      if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before a browser was started.');
      let note: string | undefined;
      try {
        note = this.options.beforeLaunch?.(executable);
      } catch (prepareError) {
        note = `Comet's Local State was left alone: ${(prepareError as Error).message}`;
      }
      if (note) this.options.logger?.info('before starting the browser', { executable, note });
      const launchFailed = this.launch(executable);
      const waiting = new RelayClient({ ...this.relayOptions(), hostWaitMs: this.options.settings.COMET_TIMEOUT });
      try {
        // A browser that could not start says so at once, not after COMET_TIMEOUT as an extension that did not connect.
        await Promise.race([waiting.hostStatus({ signal }), launchFailed]);
      } catch (waitError) {
        if (waitError instanceof RelayError && waitError.code === 'COMET_LAUNCH_FAILED') throw waitError;
        const cause = RelayError.from(waitError);
        if (signal?.aborted) throw new RelayError('CANCELLED', `The call was cancelled after ${executable} was started; it goes on starting.`);
        throw new RelayError(
          'COMET_LAUNCH_FAILED',
          `Started ${executable}, but its comet-relay extension did not connect within ${this.options.settings.COMET_TIMEOUT} ms (${cause.message}). Is the extension installed in that browser? Run \`${cliCommand('doctor')}\`.`,
        );
      } finally {
        waiting.close();
      }
      return { launched: true, ...(note ? { note } : {}) };
    }
  }

  close(): void {
    this.relay?.close();
  }

  private client(): RelayClient {
    this.relay ??= new RelayClient(this.relayOptions());
    return this.relay;
  }

  private relayOptions() {
    return {
      home: this.options.home,
      profile: this.options.settings.COMET_RELAY_PROFILE,
      client: this.clientInfo,
      transport: this.options.transport,
      door: this.door,
      hostWaitMs: this.options.settings.COMET_HOST_WAIT,
      logger: this.options.logger,
    };
  }

  private findExecutable(): string | undefined {
    // No shell expands `~` in an MCP client's JSON config (review 14d, 6).
    const configured = this.options.settings.COMET_PATH && expandHome(this.options.settings.COMET_PATH);
    if (configured) {
      if (!fs.existsSync(configured)) {
        throw new RelayError('COMET_NOT_FOUND', `COMET_PATH is set to ${configured}, but no file is there. Point it at the Comet (or Chrome) executable.`);
      }
      const problem = notRunnable(configured);
      if (problem) throw new RelayError('COMET_NOT_FOUND', `COMET_PATH is set to ${configured}, ${problem}`);
      return configured;
    }
    return this.options.browserCandidates?.().find((candidate) => fs.existsSync(candidate));
  }

  /** Starts the browser; the promise rejects if it could not be (spawn's errors come as an event), and never settles otherwise. */
  private launch(executable: string): Promise<never> {
    const failed = (error: unknown) =>
      new RelayError('COMET_LAUNCH_FAILED', `Could not start ${executable}: ${(error as Error).message}. Set COMET_PATH to the Comet (or Chrome) executable, or run \`${cliCommand('doctor')}\`.`);
    return new Promise<never>((_resolve, reject) => {
      try {
        const child = spawn(executable, ['https://www.perplexity.ai/'], { detached: true, stdio: 'ignore' });
        child.on('error', (error) => {
          this.options.logger?.error('browser launch failed', { executable, error: String(error) });
          reject(failed(error));
        });
        child.unref();
      } catch (error) {
        reject(failed(error));
      }
    });
  }
}

/** Why a path cannot be run as the browser (a folder, a file without the execute bit), in words; undefined when it can. */
function notRunnable(file: string): string | undefined {
  try {
    if (fs.statSync(file).isDirectory()) {
      return 'a folder: point it at the executable itself (on macOS the one inside the app, …/Comet.app/Contents/MacOS/Comet).';
    }
    fs.accessSync(file, fs.constants.X_OK);
    return undefined;
  } catch (error) {
    return `which cannot be run (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): make it executable (chmod +x) or point it at the Comet (or Chrome) executable.`;
  }
}
