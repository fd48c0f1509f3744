/**
 * The run request on its way to the run (`runner/run-request.ts`): one JSON file in a folder
 * of its own, named in the child's environment by `E2E_RUN_REQUEST`. The runner writes a config
 * failure beside it, so the CLI learns the failure's code even when the request itself did not
 * read. The folder goes when the run is over.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAILURE_FILE_NAME } from '../runner/environment.js';
import { RUN_REQUEST_VARIABLE, type RunRequest } from '../runner/run-request.js';

/** A request written for one run. */
export interface WrittenRunRequest {
  /** The variable naming the request, for the child's environment. */
  variables: Record<string, string>;
  /** Where the run writes a config failure (`{ code, message }`), if it has one. */
  failurePath: string;
  /** The folder the request lives in (a listing's probe output may go there too). */
  folder: string;
  /** Remove the request (after the run). */
  dispose(): Promise<void>;
}

/** Write `request` for one run into a fresh temporary folder. */
export async function writeRunRequest(request: RunRequest): Promise<WrittenRunRequest> {
  const folder = await mkdtemp(join(tmpdir(), 'e2e-run-'));
  const path = join(folder, 'request.json');
  await writeFile(path, JSON.stringify(request));
  return {
    variables: { [RUN_REQUEST_VARIABLE]: path },
    failurePath: join(folder, FAILURE_FILE_NAME),
    folder,
    dispose: () => rm(folder, { recursive: true, force: true }),
  };
}
