export * from './subjects.ts';
export * from './messages.ts';
