import { render } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import PathText from '../lib/components/PathText.svelte';

describe('PathText', () => {
  const parts = (path: string) => {
    const { container } = render(PathText, { path });
    return [container.querySelector('.head')?.textContent, container.querySelector('.tail')?.textContent];
  };
  it('cuts the head of a long path and always shows its last segment', () => {
    expect(parts('/srv/herd/alpha-worktrees/fix-login')).toEqual(['/srv/herd/alpha-worktrees/', 'fix-login']);
  });
  it('draws a path just under the root as one piece: no gap after "/"', () => {
    expect(parts('/workspace')).toEqual(['', '/workspace']);
    expect(parts('C:\\')).toEqual(['', 'C:\\']);
  });
});
