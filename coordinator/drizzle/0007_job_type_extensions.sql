ALTER TYPE "public"."job_type" ADD VALUE 'edit_from_transcript';--> statement-breakpoint
ALTER TYPE "public"."job_type" ADD VALUE 'clips_horizontal';