import { Injectable, type OnModuleInit } from '@nestjs/common';
import { jiebaSegmenter } from './routing/index.js';

/**
 * The routing core's segmenter dictionary loads at module init, not inside the first route or evaluation
 * (~300 ms of the API's thread; README, Faults and outages).
 */
@Injectable()
export class IntentSegmenterWarmUp implements OnModuleInit {
  onModuleInit(): void {
    jiebaSegmenter();
  }
}
