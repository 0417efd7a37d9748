import { execa } from 'execa';

/**
 * A program run in a real terminal: a detached tmux session (its own server socket, so a
 * developer's tmux is never touched) of a fixed size, whose screen is read with capture-pane.
 * The command's exit status is printed as `[exit N]` and the pane is kept open afterwards so the
 * final screen can still be read.
 */
export class TmuxTerminal {
  readonly socket: string;
  readonly name: string;
  private constructor(socket: string, name: string) {
    this.socket = socket;
    this.name = name;
  }

  /** Starts `argv` (run by bash in `cwd` with `env` added) in a `width`×`height` terminal. */
  static async start(name: string, argv: string[], opts: { cwd: string; env?: Record<string, string>; width?: number; height?: number; socket?: string }) {
    const socket = opts.socket ?? `cutroom-test-${process.pid}`;
    const command = `cd ${quote(opts.cwd)} && ${argv.map(quote).join(' ')}; echo "[exit $?]"; sleep 3600`;
    const envFlags = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    await execa('tmux', [
      '-L',
      socket,
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      String(opts.width ?? 120),
      '-y',
      String(opts.height ?? 30),
      ...envFlags,
      command,
    ]);
    return new TmuxTerminal(socket, name);
  }

  /** The visible screen, one string (trailing blank lines dropped). */
  async screen(): Promise<string> {
    const r = await execa('tmux', ['-L', this.socket, 'capture-pane', '-p', '-t', this.name]);
    return r.stdout.replace(/\s+$/, '');
  }

  /** Waits until the screen matches `pattern`; returns the match and the screen. Fails with the last screen. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<{ match: RegExpExecArray; screen: string }> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = await this.screen();
      const match = pattern.exec(screen);
      if (match) return { match, screen };
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${pattern} on the screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits for the command to end; returns its exit status and the final screen. */
  async exit(timeoutMs: number): Promise<{ code: number; screen: string }> {
    const { match, screen } = await this.waitFor(/\[exit (\d+)\]/, timeoutMs);
    return { code: Number(match[1]), screen };
  }

  /** Keys as tmux names them (`C-c`, `Enter`, or text). */
  async sendKeys(...keys: string[]): Promise<void> {
    await execa('tmux', ['-L', this.socket, 'send-keys', '-t', this.name, ...keys]);
  }

  async kill(): Promise<void> {
    await execa('tmux', ['-L', this.socket, 'kill-session', '-t', this.name], { reject: false });
  }

  /** Stops the tmux server of this socket (every session on it). */
  static async killServer(socket = `cutroom-test-${process.pid}`): Promise<void> {
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
  }
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
