import net from 'node:net';

export type ProxyMode = 'open' | 'refuse' | 'silent';

/**
 * A TCP proxy in front of the test database that a test can cut: `refuse` closes the listener
 * (ECONNREFUSED), `silent` accepts connections and never answers; both drop every open connection.
 */
export class DatabaseProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private mode: ProxyMode = 'open';
  private port = 0;

  constructor(private readonly upstream: net.NetConnectOpts) {}

  /** The proxy URL for a database URL (its user, password and database name, the proxy's host and port). */
  static forUrl(databaseUrl: string): { proxy: DatabaseProxy; url: () => string } {
    const parsed = new URL(databaseUrl);
    const host = decodeURIComponent(parsed.hostname);
    const upstream: net.NetConnectOpts = host.startsWith('/') ? { path: `${host}/.s.PGSQL.5432` } : { host, port: Number(parsed.port || 5432) };
    const proxy = new DatabaseProxy(upstream);
    return {
      proxy,
      url: () => {
        const u = new URL(databaseUrl);
        u.hostname = '127.0.0.1';
        u.port = String(proxy.port);
        return u.toString();
      },
    };
  }

  async start(): Promise<void> {
    await this.listen();
  }

  async setMode(mode: ProxyMode): Promise<void> {
    this.mode = mode;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (mode === 'refuse') await this.closeListener();
    else if (!this.server) await this.listen();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await this.closeListener();
  }

  private listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  private closeListener(): Promise<void> {
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.on('error', () => client.destroy());
    if (this.mode !== 'open') return;
    const upstream = net.connect(this.upstream);
    this.track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}
