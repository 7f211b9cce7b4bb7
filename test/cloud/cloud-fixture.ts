/**
 * The emulators with paracap's functions served on them, as the cloud tests start them: one per test
 * file, shared by its cases, stopped in its afterAll.
 */
import { Storage } from "@google-cloud/storage";
import { closeCloudDeps } from "../../functions/deps.ts";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from "../../scripts/emulators/local-cloud.ts";
import { PARTITIONS, SHARD_BYTES } from "./helpers.ts";

export interface CloudFixture {
  emu: Emulators;
  cloud: LocalCloud;
  /** a client of the emulated Cloud Storage */
  storage: Storage;
  /** stops the functions, the clients they made and the emulators */
  stop(): Promise<void>;
}

/** The cloud tests' partitions and shard size unless `opts` says otherwise. */
export async function startCloudFixture(opts: Omit<LocalCloudOptions, "emulators"> = {}): Promise<CloudFixture> {
  const emu = await startEmulators();
  let cloud: LocalCloud;
  try {
    cloud = await startLocalCloud({ partitions: PARTITIONS, shardBytes: SHARD_BYTES, ...opts, emulators: emu });
  } catch (e) {
    await emu.stop();
    throw e;
  }
  return {
    emu,
    cloud,
    storage: new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId }),
    async stop() {
      await cloud.stop();
      await closeCloudDeps();
      await emu.stop();
    },
  };
}
