-- The NATS user keys agents registered, and which are revoked (nats-auth/, docs/adr/0009).
CREATE TABLE "agent_nats_keys" (
	"public_key" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"kinds" text[] DEFAULT '{}'::text[] NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "agent_nats_keys_agent_idx" ON "agent_nats_keys" USING btree ("agent_id");