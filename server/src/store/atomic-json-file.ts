import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import type { Adapter } from 'lowdb';
import { StoreLoadError } from './store';

/** lowdb adapter: temp file + fsync + rename, so a crash never leaves a half-written file. */
export class AtomicJsonFile implements Adapter<unknown> {
  constructor(private readonly file: string) {}

  async read(): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new StoreLoadError(`Cannot read settings file ${this.file}: ${(err as Error).message}`);
    }
    if (text.trim() === '') return null;
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new StoreLoadError(`Settings file ${this.file} is not valid JSON: ${(err as Error).message}`);
    }
  }

  async write(data: unknown): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
  }
}
