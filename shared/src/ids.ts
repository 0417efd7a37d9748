import { z } from 'zod';
export const Uuid = z.uuid();
