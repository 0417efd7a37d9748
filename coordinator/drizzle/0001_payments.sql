CREATE TABLE "checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"url" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text NOT NULL,
	"payment_intent_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" integer,
	"body" jsonb,
	"headers" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_id" uuid,
	"rail" text NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"state" text NOT NULL,
	"reference" text,
	"payer" text,
	"idempotency_key" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_consumptions" (
	"challenge_id" text PRIMARY KEY NOT NULL,
	"method" text NOT NULL,
	"job_id" uuid,
	"state" text NOT NULL,
	"reference" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "price_chain_units" bigint;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "payment_rail" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "payment_reference" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "payer" text;--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_job_uq" ON "checkout_sessions" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_scope_key_uq" ON "idempotency_keys" USING btree ("scope","key");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_idempotency_uq" ON "ledger_entries" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "ledger_job_idx" ON "ledger_entries" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "ledger_pending_idx" ON "ledger_entries" USING btree ("id") WHERE state = 'pending';