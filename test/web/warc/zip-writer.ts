/**
 * A minimal zip writer for tests (stored or deflated members, optional ZIP64 records): WACZ files
 * built from the real WARCs in shared/data, as Python's zipfile writes them for py-wacz and
 * Browsertrix Crawler. Written here so the tests need no `zip` program (CI installs none).
 */
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipMember {
  name: string;
  data: Buffer;
  /** deflate the member (default: stored, as WACZ asks of its WARCs) */
  deflate?: boolean;
  /** set the encryption flag, with the 12-byte header ZipCrypto puts before the data (not really encrypted: a reader must refuse the member, not read it) */
  encryptedFlag?: boolean;
}

/** @param zip64 write ZIP64 end records (as writers do past 4 GiB or 65,535 members) */
export function writeZip(members: readonly ZipMember[], opts: { zip64?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, "utf8");
    const packed = m.deflate ? deflateRawSync(m.data) : m.data;
    const body = m.encryptedFlag ? Buffer.concat([Buffer.alloc(12, 0xa5), packed]) : packed;
    const crc = crc32(m.data);
    const flags = 0x0800 | (m.encryptedFlag ? 1 : 0);
    const method = m.deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(m.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    parts.push(local, name, body);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(flags, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt32LE(0, 12);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(m.data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += 30 + name.length + body.length;
  }
  const cdBytes = Buffer.concat(central);
  const tail: Buffer[] = [];
  if (opts.zip64) {
    const end64 = Buffer.alloc(56);
    end64.writeUInt32LE(0x06064b50, 0);
    end64.writeBigUInt64LE(44n, 4);
    end64.writeUInt16LE(45, 12);
    end64.writeUInt16LE(45, 14);
    end64.writeBigUInt64LE(BigInt(members.length), 24);
    end64.writeBigUInt64LE(BigInt(members.length), 32);
    end64.writeBigUInt64LE(BigInt(cdBytes.length), 40);
    end64.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + cdBytes.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(end64, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(opts.zip64 ? 0xffff : members.length, 8);
  end.writeUInt16LE(opts.zip64 ? 0xffff : members.length, 10);
  end.writeUInt32LE(opts.zip64 ? 0xffffffff : cdBytes.length, 12);
  end.writeUInt32LE(opts.zip64 ? 0xffffffff : offset, 16);
  tail.push(end);
  return Buffer.concat([...parts, cdBytes, ...tail]);
}
