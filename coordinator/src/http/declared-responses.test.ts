import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorResponse } from '@cutroom/shared/api';
import { installDeclaredResponses } from './declared-responses.ts';
import { installErrorHandler } from './error-handler.ts';

describe('installDeclaredResponses', () => {
  let app: FastifyInstance;
  let doc: { paths: Record<string, Record<string, { responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }> }>> };
  const Thing = z.object({ id: z.string() });
  const Special409 = z.object({ error: z.string(), stale: z.boolean() });

  beforeAll(async () => {
    app = Fastify({ bodyLimit: 1024 * 1024 });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    installErrorHandler(app);
    installDeclaredResponses(app);
    await app.register(fastifySwagger, {
      openapi: { openapi: '3.1.0', info: { title: 't', version: '1' }, components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } },
      transform: jsonSchemaTransform,
    });
    await app.register(
      async (scope) => {
        const r = scope.withTypeProvider<ZodTypeProvider>();
        r.post(
          '/things',
          { schema: { body: Thing, security: [{ bearer: [] }], response: { 201: Thing, 403: ErrorResponse, 409: Special409 } } },
          async (_req, reply) => reply.status(201).send({ id: 'x' }),
        );
        r.get('/things/:id', { schema: { params: z.object({ id: z.uuid() }), response: { 200: Thing } } }, async (req) => ({ id: req.params.id }));
        r.get('/open', { schema: { response: { 200: Thing } } }, async () => ({ id: 'o' }));
        r.get('/secret', { schema: { hide: true } }, async (_req, reply) => reply.status(400).send({ v: 1, error: 'e', stale: true }));
      },
      { prefix: '/api' },
    );
    await app.ready();
    doc = app.swagger() as unknown as typeof doc;
  });
  afterAll(async () => {
    await app.close();
  });

  const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses).sort();

  it('adds the HTTP layer statuses by route shape', () => {
    expect(statuses('/api/things', 'post')).toEqual(['201', '400', '401', '403', '408', '409', '413', '415', '422', '431', '503']);
    expect(statuses('/api/things/{id}', 'get')).toEqual(['200', '400', '404', '408', '431', '503']);
    expect(statuses('/api/open', 'get')).toEqual(['200', '400', '408', '431', '503']);
    expect(doc.paths['/api/secret']).toBeUndefined();
  });

  it("declares each with the {error} schema and a description; the route's own schemas win", () => {
    const post = doc.paths['/api/things']!.post!.responses;
    expect(post['413']!.description).toBe('Request body larger than 1 MiB');
    expect(post['400']!.description).toMatch(/NUL character/);
    expect(post['403']!.description).toBe('The resource belongs to another session');
    expect(post['400']!.content!['application/json']!.schema).toMatchObject({ type: 'object', required: ['error'], properties: { error: { type: 'string' } } });
    expect(post['409']!.content!['application/json']!.schema).toMatchObject({ properties: { stale: { type: 'boolean' } } });
  });

  it('serializes the error bodies it declares', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/things', payload: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(413);
    expect(Object.keys(res.json())).toEqual(['error']);
    const unsupported = await app.inject({ method: 'POST', url: '/api/things', payload: 'x', headers: { 'content-type': 'text/csv' } });
    expect(unsupported.statusCode).toBe(415);
    expect(typeof unsupported.json().error).toBe('string');
  });

  it('leaves hidden routes alone (a declared {error} schema would strip their extra fields)', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/secret' })).json()).toEqual({ v: 1, error: 'e', stale: true });
  });
});
