'use strict'
// The fast path's reader of a chunked body (RFC 9112 7.1): SIZE [;EXT] CRLF DATA CRLF ... then a
// 0-size chunk, trailer lines and an empty line. A byte at a time but for the data, so any split works.

const CR = 13
const LF = 10
const HEX = new Int8Array(256).fill(-1)
for (let d = 0; d < 16; d++) HEX['0123456789abcdef'.charCodeAt(d)] = HEX['0123456789ABCDEF'.charCodeAt(d)] = d
const MAX_SIZE_DIGITS = 12 // 2^48 bytes: past any body, within a double's exact integers

const [SIZE, EXT, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER, TRAILER_LINE, TRAILER_LF, END_LF, DONE, FAILED] = Array.from({ length: 12 }, (_, k) => k)

class ChunkedBody {
  constructor () {
    this.start()
  }

  /** Readies for a new body. */
  start () {
    this.state = SIZE
    this.size = 0
    this.digits = 0
    this.remaining = 0
  }

  get done () { return this.state === DONE }
  get failed () { return this.state === FAILED }

  /**
   * Reads from buf at i until the body ends (done), a byte breaks the framing (failed) or buf ends.
   * @param {Buffer} buf
   * @param {number} i
   * @param {((data: Buffer) => void)|null} onData gets the body's bytes (a view of buf), if wanted
   * @returns {number} where reading stopped
   */
  read (buf, i, onData) {
    const n = buf.length
    while (i < n) {
      const c = buf[i]
      switch (this.state) {
        case SIZE:
          if (HEX[c] >= 0 && this.digits < MAX_SIZE_DIGITS) {
            this.size = this.size * 16 + HEX[c]
            this.digits++
          } else if (this.digits > 0 && c === CR) {
            this.state = SIZE_LF
          } else if (this.digits > 0 && (c === 0x3b || c === 0x20 || c === 0x09)) { // ; SP HTAB
            this.state = EXT
          } else {
            return this.fail(i)
          }
          break
        case EXT:
          if (c === LF) return this.fail(i)
          if (c === CR) this.state = SIZE_LF
          break
        case SIZE_LF:
          if (c !== LF) return this.fail(i)
          this.state = this.size === 0 ? TRAILER : DATA
          this.remaining = this.size
          break
        case DATA: {
          const take = Math.min(this.remaining, n - i)
          if (onData !== null) onData(buf.subarray(i, i + take))
          this.remaining -= take
          if (this.remaining === 0) this.state = DATA_CR
          i += take
          continue
        }
        case DATA_CR:
          if (c !== CR) return this.fail(i)
          this.state = DATA_LF
          break
        case DATA_LF:
          if (c !== LF) return this.fail(i)
          this.start()
          break
        case TRAILER:
          this.state = c === CR ? END_LF : TRAILER_LINE
          break
        case TRAILER_LINE:
          if (c === LF) return this.fail(i)
          if (c === CR) this.state = TRAILER_LF
          break
        case TRAILER_LF:
          if (c !== LF) return this.fail(i)
          this.state = TRAILER
          break
        case END_LF:
          if (c !== LF) return this.fail(i)
          this.state = DONE
          return i + 1
        default:
          return i // done or failed: nothing more is read
      }
      i++
    }
    return i
  }

  fail (i) {
    this.state = FAILED
    return i
  }
}

module.exports = { ChunkedBody }
