import net from 'node:net';

/**
 * A TCP proxy in front of a real server, for fault tests: stop() drops every connection and the
 * listener (the server "goes away"), start() listens again on the same port, and pause() keeps
 * connections open but forwards nothing (a server that stopped answering).
 */
export interface TcpProxy {
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  pause(paused: boolean): void;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let paused = false;
  let server: net.Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        sockets.add(client).add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('data', (d) => void (paused || upstream.write(d)));
        upstream.on('data', (d) => void (paused || client.write(d)));
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const a = s.address();
        port = typeof a === 'object' && a ? a.port : port;
        server = s;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    start: listen,
    async stop() {
      const s = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    pause(p: boolean) {
      paused = p;
    },
  };
}
