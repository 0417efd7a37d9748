ALTER TABLE "ledger_entries" ADD COLUMN "chain_tx" jsonb;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "rail" text;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "ledger_job_id" uuid;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "amount" bigint;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "currency" text;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "payer" text;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "recovery" jsonb;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "next_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "updated_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "ledger_sending_idx" ON "ledger_entries" USING btree ("updated_at") WHERE state = 'sending';--> statement-breakpoint
CREATE INDEX "payment_consumptions_open_idx" ON "payment_consumptions" USING btree ("next_check_at") WHERE state <> 'settled';--> statement-breakpoint
-- Data fix. Rows from before this migration carry no recovery data, so the reconciler cannot
-- decide them: a consumption left `settling` (a crash mid-settlement) goes to `stuck` for an
-- operator, and a chain refund left `sending` (its transaction was never recorded) to `failed`,
-- where an operator checks the relayer's transfers before re-queueing it.
UPDATE "payment_consumptions" SET "updated_at" = "created_at" WHERE "updated_at" IS NULL;--> statement-breakpoint
UPDATE "payment_consumptions" SET "state" = 'stuck', "last_error" = 'left settling before migration 0006 (no recovery data): check the rail by hand, then settle or delete this row' WHERE "state" = 'settling';--> statement-breakpoint
UPDATE "ledger_entries" SET "state" = 'failed', "last_error" = 'left sending before migration 0006 (transaction not recorded): check the relayer''s transfers before re-queueing' WHERE "state" = 'sending';
