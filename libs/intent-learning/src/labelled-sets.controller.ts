import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { PageQueryDto, ParsedBody, type TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import {
  LabelledSetDetailDto,
  LabelledSetDto,
  LabelledSetNameQueryDto,
  LabelledSetPageDto,
  LabelledSnapshotDto,
  LabelledSnapshotRequestDto,
  ListLabelledSetsQueryDto,
  UploadLabelledSetDto,
} from './dto/labelled-set.dto.js';
import { type LabelledUploadBody, LabelledSetsService, parseLabelledUploadBody } from './labelled-sets.service.js';
import { LabelledSnapshotService, parseSnapshotRequest, type SnapshotRequest } from './labelled-snapshot.service.js';

@ApiTags('learning')
@Controller('admin/intent/labelled-sets')
export class LabelledSetsController {
  constructor(
    private readonly sets: LabelledSetsService,
    private readonly snapshots: LabelledSnapshotService,
  ) {}

  @Post('snapshot')
  @Auth('operator')
  @ApiOperation({
    summary:
      'Take a labelled set (the next version of `name`) from labels already given: `review` (labels on logged decisions), `bad_cases` ' +
      '(the correct intent set on a bad case), `case_library` (verified AUTO cases, labelled with the intent their session was routed to). ' +
      'The first source listed wins for a repeated message; labels naming intents without a rule are left out and listed.',
  })
  @ApiBody({ type: LabelledSnapshotRequestDto })
  @ApiCreatedResponse({ type: LabelledSnapshotDto })
  @ApiBadRequestResponse({ description: 'Bad name or sources, or nothing to take' })
  snapshot(@CurrentTenant() tenantId: TenantId, @ParsedBody(parseSnapshotRequest) body: SnapshotRequest) {
    return this.snapshots.snapshot(tenantId, body);
  }

  @Post()
  @Auth('operator')
  @ApiOperation({
    summary:
      'Upload a labelled set: JSON {name, examples: [{text, intent|null}]} or JSONL (application/x-ndjson, one {"text", "intent"} per line, ?name=). ' +
      'intent null = out of scope. Each upload of a name is its next version. All or nothing.',
  })
  @ApiConsumes('application/json', 'application/x-ndjson')
  @ApiBody({ type: UploadLabelledSetDto })
  @ApiCreatedResponse({ type: LabelledSetDto })
  @ApiBadRequestResponse({
    description:
      'Invalid name or examples (each bad JSONL line is named `line N`, each array item `examples[i]`), or labels naming unknown intents (UNKNOWN_INTENTS lists them)',
  })
  // Not the validation pipe: a JSONL body is a string; a JSON body of 50,000 examples is checked by hand (labelled-data.ts).
  upload(@CurrentTenant() tenantId: TenantId, @Query() query: LabelledSetNameQueryDto, @ParsedBody(parseLabelledUploadBody) body: LabelledUploadBody) {
    return this.sets.upload(tenantId, body, query.name);
  }

  @Get()
  @Auth('operator')
  @ApiOperation({ summary: 'List labelled sets and their versions (newest first, cursor pagination, optional name filter)' })
  @ApiOkResponse({ type: LabelledSetPageDto })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: ListLabelledSetsQueryDto) {
    return this.sets.list(tenantId, query);
  }

  @Get(':id')
  @Auth('operator')
  @ApiOperation({ summary: 'One labelled set version with a page of its examples (limit/cursor page the examples)' })
  @ApiOkResponse({ type: LabelledSetDetailDto })
  @ApiNotFoundResponse({ description: 'No such labelled set in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Query() query: PageQueryDto) {
    return this.sets.get(tenantId, id, query);
  }

  @Delete(':id')
  @Auth('operator')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete one labelled set version with its examples' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ description: 'No such labelled set in this tenant' })
  async delete(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.sets.delete(tenantId, id);
  }
}
