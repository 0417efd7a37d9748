CREATE TABLE "host_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"host" text DEFAULT 'video_host' NOT NULL,
	"account_id" text,
	"account_title" text,
	"scopes" text NOT NULL,
	"refresh_token_enc" text NOT NULL,
	"access_token_enc" text,
	"access_expires_at" timestamp with time zone,
	"status" text NOT NULL,
	"status_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "oauth_states" (
	"state" text PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"code_verifier_enc" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "publish_workflows" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"connection_id" uuid NOT NULL,
	"step" text DEFAULT 'start' NOT NULL,
	"upload_uri" text,
	"bytes_total" bigint,
	"bytes_confirmed" bigint DEFAULT 0 NOT NULL,
	"video_id" text,
	"caption_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_run_at" timestamp with time zone NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "host_connections" ADD CONSTRAINT "host_connections_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_states" ADD CONSTRAINT "oauth_states_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "publish_workflows" ADD CONSTRAINT "publish_workflows_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "publish_workflows" ADD CONSTRAINT "publish_workflows_connection_id_host_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."host_connections"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "host_connections_session_idx" ON "host_connections" USING btree ("session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "host_connections_active_uq" ON "host_connections" USING btree ("session_id","host") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "oauth_states_expires_idx" ON "oauth_states" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "publish_workflows_next_run_idx" ON "publish_workflows" USING btree ("next_run_at");