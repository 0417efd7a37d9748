ALTER TABLE "jobs" RENAME COLUMN "bundle_job_id" TO "parent_job_id";--> statement-breakpoint
CREATE INDEX "jobs_parent_idx" ON "jobs" USING btree ("parent_job_id") WHERE parent_job_id is not null;