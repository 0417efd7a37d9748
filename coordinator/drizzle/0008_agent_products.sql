ALTER TYPE "public"."job_type" ADD VALUE 'clips_from_video';--> statement-breakpoint
ALTER TYPE "public"."job_type" ADD VALUE 'clips_youtube';--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "step_due_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "jobs_step_due_idx" ON "jobs" USING btree ("step_due_at") WHERE step_due_at is not null;