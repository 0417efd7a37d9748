CREATE TYPE "public"."attempt_outcome" AS ENUM('completed', 'failed', 'lease_expired');--> statement-breakpoint
CREATE TYPE "public"."job_status" AS ENUM('pending', 'uploading', 'extracting_audio', 'transcribing', 'analyzing', 'publishing', 'completed', 'failed', 'deleted');--> statement-breakpoint
CREATE TYPE "public"."job_type" AS ENUM('transcribe', 'summarize', 'find_clips', 'extract_clip', 'extract_vertical_clip', 'publish_video', 'clips_vertical');--> statement-breakpoint
CREATE TYPE "public"."payment_status" AS ENUM('pending', 'paid', 'refunded', 'paid_by_parent');--> statement-breakpoint
ALTER TABLE "job_attempts" ALTER COLUMN "outcome" SET DATA TYPE "public"."attempt_outcome" USING "outcome"::"public"."attempt_outcome";--> statement-breakpoint
ALTER TABLE "job_events" ALTER COLUMN "from_status" SET DATA TYPE "public"."job_status" USING "from_status"::"public"."job_status";--> statement-breakpoint
ALTER TABLE "job_events" ALTER COLUMN "to_status" SET DATA TYPE "public"."job_status" USING "to_status"::"public"."job_status";--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "job_type" SET DATA TYPE "public"."job_type" USING "job_type"::"public"."job_type";--> statement-breakpoint
DROP INDEX IF EXISTS "jobs_expires_idx";--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "status" SET DATA TYPE "public"."job_status" USING "status"::"public"."job_status";--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "payment_status" SET DATA TYPE "public"."payment_status" USING "payment_status"::"public"."payment_status";--> statement-breakpoint
CREATE INDEX "jobs_expires_idx" ON "jobs" USING btree ("expires_at") WHERE status in ('completed','failed');
