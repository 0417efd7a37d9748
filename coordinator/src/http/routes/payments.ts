import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponse } from '@cutroom/shared/api';
import { LIMITS } from '@cutroom/shared/limits';
import type { Ctx } from '../../context.ts';
import { cardWebhookCall, checkoutLandingCall, smokeTestCall } from '../../service/index.ts';
import { credentialsOf, sendServed } from '../auth.ts';

/** Payment surfaces that are not job calls: the card webhook, the smoke test, checkout landings. */
export const paymentRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  // The webhook signature covers the exact bytes sent: keep the raw body, parse nothing.
  app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    raw.post('/api/v1/webhooks/card', { schema: { hide: true } }, async (req) => {
      const sig = req.headers['stripe-signature'];
      return cardWebhookCall(ctx, req.body as Buffer, typeof sig === 'string' ? sig : undefined);
    });
  });

  app.get(
    '/api/test',
    {
      config: { limit: 'payment' },
      schema: {
        tags: ['payments'],
        summary: 'Payment smoke test: charges 0.01 (chain USDC) and echoes',
        description:
          'Answers 402 with the payment challenges; pay and repeat the call. Card processors refuse charges below USD 0.50, so 0.01 is not offered on the card rail (no card challenge, no hosted checkout; card null in /.well-known/mpp.json); the chain rail takes it.',
        querystring: z.object({ echo: z.string().max(LIMITS.echoMaxChars).optional() }),
        response: { 200: z.object({ paid: z.literal(true), service: z.string(), echo: z.string().optional() }), 400: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (req, reply) => {
      return sendServed(reply, await smokeTestCall(ctx, credentialsOf(ctx, req), req.query.echo));
    },
  );

  const Landing = z.object({ card_checkout_session_id: z.string(), job_id: z.uuid().nullable(), payment_status: z.string(), next: z.string() });
  app.get(
    '/api/v1/checkout/complete',
    {
      schema: {
        tags: ['payments'],
        summary: 'Where hosted checkout returns the payer',
        querystring: z.object({ session_id: z.string().min(1).max(255) }),
        response: { 200: Landing, 404: ErrorResponse },
      },
    },
    async (req) => {
      const landing = await checkoutLandingCall(ctx, req.query.session_id);
      return {
        ...landing,
        next: `${landing.next} (payment is confirmed by the processor's webhook; poll the job if it still reads pending)`,
      };
    },
  );
  app.get('/api/v1/checkout/cancelled', { schema: { hide: true } }, async () => ({
    cancelled: true,
    next: 'POST /api/v1/jobs/{id}/checkout returns the same checkout_url to try again',
  }));
};
