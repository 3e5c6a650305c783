import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Embeddings } from '@langchain/core/embeddings';
import { Test } from '@nestjs/testing';
import { AppConfig, AppConfigModule, validateEnvironment } from '@arbiter/config';
import { bestDeadline, FakeOpenAiServer, fakeEmbedding } from '@arbiter/testing';
import { LlmErrorCode, LlmException } from '../llm.exception.js';
import { LlmModule } from '../llm.module.js';
import { LlmService } from '../llm.service.js';
import { l2Norm } from '../vector-math.js';
import { createEmbeddingProvider } from './create-embedding-provider.js';
import { EMBEDDING_PROVIDER, type EmbeddingProvider } from './embedding-provider.js';
import { LocalEmbeddingProvider } from './local-embedding-provider.js';
import { RemoteEmbeddingProvider } from './remote-embedding-provider.js';

const embeddingConfig = (env: Record<string, string>): AppConfig['embedding'] => new AppConfig(validateEnvironment(env)).embedding;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LlmException);
    return (error as LlmException).code;
  }
  throw new Error('expected a rejection');
}

describe('embedding providers', () => {
  const server = new FakeOpenAiServer({ embeddingDimension: 32 });
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.reset();
    server.setEmbeddingDimension(32, 1);
  });

  describe('local', () => {
    const local = createEmbeddingProvider(embeddingConfig({}));

    it('is the default, a langchain Embeddings, with a versioned id', () => {
      expect(local).toBeInstanceOf(LocalEmbeddingProvider);
      expect(local).toBeInstanceOf(Embeddings);
      expect(local.id).toBe('local:hash-v2:384');
      expect(local.dimension).toBe(384);
    });

    it('embeds documents and queries as unit vectors, identically', async () => {
      const docs = await local.embedDocuments(['机械臂报警', 'robot arm alarm']);
      expect(docs).toHaveLength(2);
      for (const v of docs) expect(Math.abs(l2Norm(v) - 1)).toBeLessThan(0.01);
      expect(await local.embedQuery('机械臂报警')).toEqual(docs[0]);
    });

    it('rejects blank text with EMBEDDING_EMPTY_TEXT (400)', async () => {
      expect(await codeOf(local.embedQuery('  '))).toBe(LlmErrorCode.EMBEDDING_EMPTY_TEXT);
      expect(await codeOf(local.embedDocuments(['a', '']))).toBe(LlmErrorCode.EMBEDDING_EMPTY_TEXT);
    });
  });

  describe('openai-compatible (real OpenAIEmbeddings against the fake server)', () => {
    const remote = (env: Record<string, string> = {}): EmbeddingProvider =>
      createEmbeddingProvider(
        embeddingConfig({ EMBEDDING_PROVIDER: 'openai', EMBEDDING_BASE_URL: baseUrl, EMBEDDING_DIMENSION: '32', EMBEDDING_MODEL: 'bge-m3', ...env }),
      );

    it('returns the server vectors, L2-normalized, in order', async () => {
      server.setEmbeddingDimension(32, 7.5); // server returns non-unit vectors
      const provider = remote();
      expect(provider).toBeInstanceOf(RemoteEmbeddingProvider);
      expect(provider.id).toBe('openai:bge-m3:32');
      const [a, b] = await provider.embedDocuments(['机械臂', 'robot arm']);
      expect(Math.abs(l2Norm(a) - 1)).toBeLessThan(1e-6);
      fakeEmbedding('机械臂', 32).forEach((x, i) => expect(a[i]).toBeCloseTo(x, 5));
      fakeEmbedding('robot arm', 32).forEach((x, i) => expect(b[i]).toBeCloseTo(x, 5));
      const q = await provider.embedQuery('机械臂');
      expect(Math.abs(l2Norm(q) - 1)).toBeLessThan(1e-6);
      const [req] = server.embeddingRequests();
      expect(req).toMatchObject({ model: 'bge-m3', input: ['机械臂', 'robot arm'] });
      expect(req.dimensions).toBeUndefined();
    });

    it('batches large inputs', async () => {
      const texts = Array.from({ length: 150 }, (_, i) => `doc ${i}`);
      const vectors = await remote().embedDocuments(texts);
      expect(vectors).toHaveLength(150);
      expect(server.embeddingRequests().length).toBe(3);
      fakeEmbedding('doc 149', 32).forEach((x, i) => expect(vectors[149][i]).toBeCloseTo(x, 5));
    });

    it('asks text-embedding-3 models for the configured dimension', async () => {
      await remote({ EMBEDDING_MODEL: 'text-embedding-3-small' }).embedQuery('x');
      expect(server.embeddingRequests()[0].dimensions).toBe(32);
    });

    it('reports a dimension mismatch clearly', async () => {
      server.setEmbeddingDimension(1024);
      await expect(remote().embedQuery('x')).rejects.toThrow(/returned 1024-dimensional vectors but EMBEDDING_DIMENSION=32/);
      expect(await codeOf(remote().embedDocuments(['x']))).toBe(LlmErrorCode.EMBEDDING_DIMENSION_MISMATCH);
    });

    it('maps server errors and malformed replies to EMBEDDING_FAILED', async () => {
      const provider = new RemoteEmbeddingProvider({ provider: 'openai', baseUrl, model: 'bge-m3', dimension: 32, timeoutMs: 1000, maxRetries: 0 });
      server.enqueueEmbedding({ kind: 'error', status: 500, message: 'boom' }, { kind: 'malformed' });
      expect(await codeOf(provider.embedQuery('x'))).toBe(LlmErrorCode.EMBEDDING_FAILED);
      expect(await codeOf(provider.embedQuery('x'))).toBe(LlmErrorCode.EMBEDDING_FAILED);
    });

    it('times out per EMBEDDING_TIMEOUT_MS', async () => {
      const provider = new RemoteEmbeddingProvider({ provider: 'openai', baseUrl, model: 'bge-m3', dimension: 32, timeoutMs: 150, maxRetries: 0 });
      server.enqueueEmbedding(...Array.from({ length: 5 }, () => ({ kind: 'vectors' as const, delayMs: 3_000 })));
      const { lateByMs, error } = await bestDeadline(150, () => provider.embedQuery('x'));
      expect((error as LlmException).code).toBe(LlmErrorCode.EMBEDDING_FAILED);
      expect(lateByMs).toBeLessThan(25);
    });

    it('rejects blank text before calling the server', async () => {
      expect(await codeOf(remote().embedDocuments(['ok', ' ']))).toBe(LlmErrorCode.EMBEDDING_EMPTY_TEXT);
      expect(server.requests).toHaveLength(0);
      await expect(remote().embedDocuments([])).resolves.toEqual([]);
    });

    it('talks to Ollama through its /v1 API', async () => {
      const provider = createEmbeddingProvider(
        embeddingConfig({
          EMBEDDING_PROVIDER: 'ollama',
          EMBEDDING_BASE_URL: baseUrl.replace(/\/v1$/, ''),
          EMBEDDING_DIMENSION: '32',
          EMBEDDING_MODEL: 'bge-m3',
        }),
      );
      expect(provider.id).toBe('ollama:bge-m3:32');
      await provider.embedQuery('x');
      expect(server.requests[0].path).toBe('/v1/embeddings');
    });
  });

  describe('LlmModule', () => {
    it('provides LlmService and EMBEDDING_PROVIDER from AppConfig', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [AppConfigModule.forRoot({ env: { EMBEDDING_DIMENSION: '64' } }), LlmModule],
      }).compile();
      const provider = moduleRef.get<EmbeddingProvider>(EMBEDDING_PROVIDER);
      expect(provider.id).toBe('local:hash-v2:64');
      expect(moduleRef.get(LlmService).enabled).toBe(false);
      await moduleRef.close();
    });
  });
});
