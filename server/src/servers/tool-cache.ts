import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import type { UpstreamLists } from './upstream';

/**
 * The last known lists of each server, kept beside the settings file (not in
 * it: they are big and change often) so a restart serves tools at once.
 */
export class ToolCache {
  private data: Record<string, UpstreamLists & { updatedAt: string }> = {};
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  async load(): Promise<void> {
    try {
      const parsed = JSON.parse(await readFile(this.file, 'utf8'));
      if (parsed && typeof parsed === 'object') this.data = parsed;
    } catch {
      // Missing or damaged cache: start empty, the servers will fill it.
    }
  }

  get(name: string): UpstreamLists | undefined {
    return this.data[name];
  }

  set(name: string, lists: UpstreamLists): void {
    const { tools, prompts, resources, resourceTemplates } = lists;
    this.data[name] = { tools, prompts, resources, resourceTemplates, updatedAt: new Date().toISOString() };
    this.schedule();
  }

  delete(name: string): void {
    if (!(name in this.data)) return;
    delete this.data[name];
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), 500);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    const text = JSON.stringify(this.data);
    this.writing = this.writing.then(() => writeFileAtomic(this.file, text).catch(() => undefined));
    await this.writing;
  }
}
