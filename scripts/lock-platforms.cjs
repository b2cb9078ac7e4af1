#!/usr/bin/env node
// `npm ci` refuses a lock file that lacks an entry for any optional dependency in package.json's
// tree, including native bindings for other platforms. A registry mirror that carries only the
// builds for its own platform makes `npm install` drop those entries, and the lock then fails
// `npm ci` everywhere. Run this after `npm install` to put them back (os/cpu-tagged, so npm skips
// them on machines they do not fit). Idempotent.
const fs = require('node:fs')
const path = require('node:path')

const lockPath = path.join(__dirname, '..', 'package-lock.json')
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'))
const pkgs = lock.packages
const PLATFORM = /(?:^|[-/])(darwin|linux|win32|freebsd|openbsd|netbsd|sunos|aix|android|openharmony)-(arm64|x64|arm|ia32|loong64|mips64el|ppc64|riscv64|s390x)(?:-(musl|gnu|msvc|gnueabihf))?$/
let added = 0
for (const [key, entry] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const m = PLATFORM.exec(name)
    const where = `${key ? `${key}/` : ''}node_modules/${name}`
    const hoisted = `node_modules/${name}`
    if (!m || pkgs[where] || pkgs[hoisted]) continue
    const [, os, cpu, abi] = m
    pkgs[hoisted] = {version, cpu: [cpu], ...(os === 'linux' ? {libc: [abi === 'musl' ? 'musl' : 'glibc']} : {}), optional: true, os: [os]}
    added++
  }
}
const sorted = {}
for (const k of Object.keys(pkgs).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0))) sorted[k] = pkgs[k]
lock.packages = sorted
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n')
console.log(`lock-platforms: ${added} platform entr${added === 1 ? 'y' : 'ies'} added`)
