// pino-roll ships no types; the part Hub uses.
declare module 'pino-roll' {
  import type { DestinationStream } from 'pino';
  export default function roll(options: {
    file: string;
    extension?: string;
    mkdir?: boolean;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    minLength?: number;
    maxLength?: number;
    maxWrite?: number;
  }): Promise<DestinationStream & { end(): void; flushSync?(): void }>;
}
