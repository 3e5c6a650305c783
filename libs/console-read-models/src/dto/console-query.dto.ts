import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsCalendarDate } from '@arbiter/coverage';
import { ChannelFilterField } from '@arbiter/sessions';

/** Window and channel of the overview (days in the tenant's time zone, like the coverage report). */
export class ConsoleOverviewQueryDto {
  @ApiPropertyOptional({ description: "First day (inclusive) in the tenant's time zone; default 29 days before `to`", example: '2026-03-01' })
  @IsOptional()
  @IsCalendarDate()
  from?: string;

  @ApiPropertyOptional({
    description: "Last day (inclusive) in the tenant's time zone; default today. Must not be before `from`; at most 366 days",
    example: '2026-03-31',
  })
  @IsOptional()
  @IsCalendarDate()
  to?: string;

  @ChannelFilterField('Only sessions of this channel (1-32 letters, digits, "_" or "-")')
  channel?: string;
}
