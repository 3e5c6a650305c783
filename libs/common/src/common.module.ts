import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service.js';

/** The metrics registry (`MetricsService`, one per process): import it where you inject it. */
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class CommonModule {}
