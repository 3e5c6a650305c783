/**
 * Aho–Corasick automaton over UTF-16 code units: finds every occurrence of every keyword in one pass,
 * O(text + matches) whatever the number of keywords. Callers lowercase both sides for case-insensitivity.
 */
export interface AcHit {
  /** Index of the keyword in the array given to the constructor. */
  keyword: number;
  /** End offset (exclusive) in the text. */
  end: number;
}

export class AhoCorasick {
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** Keywords ending at each node (own and, after build, inherited through failure links). */
  private readonly out: number[][] = [[]];

  constructor(keywords: readonly string[]) {
    keywords.forEach((kw, idx) => {
      if (kw.length === 0) return;
      let node = 0;
      for (let i = 0; i < kw.length; i++) {
        const c = kw.charCodeAt(i);
        let child = this.next[node].get(c);
        if (child === undefined) {
          child = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.out.push([]);
          this.next[node].set(c, child);
        }
        node = child;
      }
      this.out[node].push(idx);
    });
    const queue: number[] = [];
    for (const child of this.next[0].values()) queue.push(child);
    for (let qi = 0; qi < queue.length; qi++) {
      const node = queue[qi];
      for (const [c, child] of this.next[node]) {
        let f = this.fail[node];
        while (f !== 0 && !this.next[f].has(c)) f = this.fail[f];
        const target = this.next[f].get(c);
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        const inherited = this.out[this.fail[child]];
        if (inherited.length > 0) this.out[child] = this.out[child].concat(inherited);
        queue.push(child);
      }
    }
  }

  /** Calls `onHit` for every keyword occurrence. */
  scan(text: string, onHit: (hit: AcHit) => void): void {
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let child = this.next[node].get(c);
      while (child === undefined && node !== 0) {
        node = this.fail[node];
        child = this.next[node].get(c);
      }
      node = child ?? 0;
      const outs = this.out[node];
      for (let k = 0; k < outs.length; k++) onHit({ keyword: outs[k], end: i + 1 });
    }
  }
}
