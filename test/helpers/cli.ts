import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/booking-service.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real binary with only the environment given (plus PATH), like an operator would. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000, nodeArgs: string[] = []): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`booking-service ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running command and resolves once `ready` appears in its output. */
export function startCli(args: string[], env: Record<string, string>, ready: RegExp, timeoutMs = 90_000, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let output = '';
  const started = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), timeoutMs);
    const onData = (d: Buffer) => {
      output += d;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, started, exited, output: () => output };
}
