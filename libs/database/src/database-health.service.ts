import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

@Injectable()
export class DatabaseHealth {
  constructor(private readonly dataSource: DataSource) {}

  /** Round-trips one query; resolves with the latency or rejects when the database is unreachable. */
  async ping(timeoutMs = 2000): Promise<number> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.dataSource.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database ping timed out')), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    return performance.now() - started;
  }
}
