import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes SQL migrations from src/db/schema.ts into coordinator/drizzle/.
export default defineConfig({
  dialect: 'postgresql',
  schema: './coordinator/src/db/schema.ts',
  out: './coordinator/drizzle',
});
