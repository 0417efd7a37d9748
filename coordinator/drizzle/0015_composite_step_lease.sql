ALTER TABLE "jobs" ADD COLUMN "step_lease_owner" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "step_lease_until" timestamp with time zone;