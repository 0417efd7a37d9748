-- Consent binds to the browser that asked for it (publishing/consent-requests.ts). Requests in
-- flight were handed out as the host's consent URL, unbound to any browser: under the new rules
-- their callback is refused anyway, so they go (the app makes a new request), and request_id can
-- be required.
DELETE FROM "oauth_states";--> statement-breakpoint
ALTER TABLE "oauth_states" ALTER COLUMN "code_verifier_enc" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "host_connections" ADD COLUMN "revoke_token_hash" text;--> statement-breakpoint
ALTER TABLE "oauth_states" ADD COLUMN "request_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_states" ADD COLUMN "browser_hash" text;--> statement-breakpoint
ALTER TABLE "oauth_states" ADD COLUMN "bound_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "host_connections_revoke_token_uq" ON "host_connections" USING btree ("revoke_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_states_request_uq" ON "oauth_states" USING btree ("request_id");
