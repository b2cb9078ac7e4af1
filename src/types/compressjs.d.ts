/** The part of compressjs (pure-JavaScript bzip2) that stateful ingestion uses. */
declare module 'compressjs' {
  const compressjs: {
    Bzip2: {
      compressFile(input: Uint8Array | ArrayLike<number>, output?: null, blockSize?: number): ArrayLike<number>
      decompressFile(input: Uint8Array | ArrayLike<number>): ArrayLike<number>
    }
  }
  export default compressjs
}
