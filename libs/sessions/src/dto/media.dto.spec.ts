import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { MediaDto } from './media.dto.js';

/** The media type is normalised the way the coverage rules read it (docs/spec/coverage.md: trimmed, case-folded). */
describe('MediaDto type: normalised at ingest, unknown types still rejected', () => {
  const accepted: [unknown, string][] = [
    ['image', 'image'],
    [' IMAGE ', 'image'],
    ['\tImage\n', 'image'],
    ['AUDIO', 'audio'],
    ['  video', 'video'],
    ['File ', 'file'],
  ];
  it.each(accepted)('%j → %j', (type, stored) => {
    const dto = plainToInstance(MediaDto, { type });
    expect(validateSync(dto)).toEqual([]);
    expect(dto.type).toBe(stored);
  });

  const rejected: unknown[] = ['hologram', 'image/png', '', '   ', 'imag e', 42, null];
  it.each(rejected)('%j → rejected', (type) => {
    const errors = validateSync(plainToInstance(MediaDto, { type }));
    expect(errors.map((e) => e.property)).toEqual(['type']);
  });
});
