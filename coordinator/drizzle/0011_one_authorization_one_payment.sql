-- One signed authorization pays one thing, on any protocol (payments/consumption-key.ts).
CREATE TABLE "relayer_nonces" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"next_nonce" bigint DEFAULT 0 NOT NULL,
	"holder" text,
	"lease_until" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "relayer_nonces_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
-- The primary key column held the MPP challenge id or `x402:<from>:<nonce>`: it becomes `key`
-- (payment_consumptions_pkey stays on it), and the challenge id gets a column of its own.
ALTER TABLE "payment_consumptions" RENAME COLUMN "challenge_id" TO "key";--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "challenge_id" text;--> statement-breakpoint
ALTER TABLE "payment_consumptions" ADD COLUMN "purpose" text;--> statement-breakpoint
UPDATE "payment_consumptions" SET "challenge_id" = "key" WHERE "key" NOT LIKE 'x402:%';--> statement-breakpoint
UPDATE "payment_consumptions" SET "purpose" = 'job:' || "job_id" WHERE "job_id" IS NOT NULL;--> statement-breakpoint
-- Open chain rows take the authorization's key, `eip155:<chainId>:<from>:<nonce>` (the chain id
-- from the payer's did:pkh). Settled rows keep theirs: the token refuses a used nonce, so their
-- authorizations cannot be presented again. Two open rows carrying one authorization (the double
-- spend this migration closes) cannot both take its key: the later ones become `stuck` for an operator.
WITH "rekeyed" AS (
  SELECT "key" AS "old_key",
         'eip155:' || split_part("payer", ':', 4) || ':' || lower("recovery"->>'from') || ':' || lower("recovery"->>'nonce') AS "new_key",
         row_number() OVER (
           PARTITION BY split_part("payer", ':', 4), lower("recovery"->>'from'), lower("recovery"->>'nonce')
           ORDER BY "created_at", "key"
         ) AS "rn"
  FROM "payment_consumptions"
  WHERE "state" <> 'settled' AND "rail" = 'chain' AND "payer" LIKE 'did:pkh:eip155:%'
    AND "recovery"->>'from' IS NOT NULL AND "recovery"->>'nonce' IS NOT NULL
)
UPDATE "payment_consumptions" AS "c"
SET "key" = CASE WHEN "r"."rn" = 1 THEN "r"."new_key" ELSE "c"."key" END,
    "state" = CASE WHEN "r"."rn" = 1 THEN "c"."state" ELSE 'stuck' END,
    "last_error" = CASE WHEN "r"."rn" = 1 THEN "c"."last_error"
                        ELSE 'migration 0011: this authorization is also presented by consumption ' || "r"."new_key" || '; one authorization pays one thing: check the chain, then settle one and delete the other' END
FROM "rekeyed" AS "r"
WHERE "c"."key" = "r"."old_key";--> statement-breakpoint
-- One settled transaction books one charge. Where one was booked twice (two jobs paid by one
-- transfer), the later booking is marked failed for an operator; its job is then not refunded.
UPDATE "ledger_entries" AS "l"
SET "state" = 'failed', "last_error" = 'migration 0011: ' || "l"."reference" || ' was already booked as charge ' || "d"."first_id" || '; one transfer pays one job'
FROM (
  SELECT "id", first_value("id") OVER (PARTITION BY "rail", "reference" ORDER BY "id") AS "first_id",
         row_number() OVER (PARTITION BY "rail", "reference" ORDER BY "id") AS "rn"
  FROM "ledger_entries"
  WHERE "kind" IN ('charge', 'hold') AND "state" = 'done' AND "reference" IS NOT NULL
) AS "d"
WHERE "l"."id" = "d"."id" AND "d"."rn" > 1;--> statement-breakpoint
-- One transaction settles one refund. Where two refunds were marked done by one transfer, the
-- later one was not paid: it is marked failed for an operator to queue again.
UPDATE "ledger_entries" AS "l"
SET "state" = 'failed', "last_error" = 'migration 0011: refund ' || "d"."first_id" || ' was settled by the same transaction ' || "l"."reference" || '; this refund was not paid: queue it again'
FROM (
  SELECT "id", first_value("id") OVER (PARTITION BY "rail", "reference" ORDER BY "id") AS "first_id",
         row_number() OVER (PARTITION BY "rail", "reference" ORDER BY "id") AS "rn"
  FROM "ledger_entries"
  WHERE "kind" = 'refund' AND "state" IN ('sending', 'done') AND "reference" IS NOT NULL
) AS "d"
WHERE "l"."id" = "d"."id" AND "d"."rn" > 1;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_charge_reference_uq" ON "ledger_entries" USING btree ("rail","reference") WHERE kind IN ('charge', 'hold') AND state = 'done' AND reference IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_refund_reference_uq" ON "ledger_entries" USING btree ("rail","reference") WHERE kind = 'refund' AND state IN ('sending', 'done') AND reference IS NOT NULL;
