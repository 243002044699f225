import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import MessageView from '../lib/components/MessageView.svelte';
import type { Attachment } from '../lib/types';
import { message } from './fixtures';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNgYPj/n4GB4T8DAwMDAwAc9wP9Yl8o3AAAAABJRU5ErkJggg==';

function attachment(o: Partial<Attachment> = {}): Attachment {
  return {
    kind: 'image',
    mediaType: 'image/png',
    title: null,
    bytes: 1200,
    viewable: true,
    reference: null,
    offset: 0,
    index: 0,
    ...o,
  };
}

describe('attachments of a prompt', () => {
  it('a pasted image is a thumbnail from its own bytes, enlarged on click, closed with Esc', async () => {
    const fetchAttachment = vi.fn(async () => ({ mediaType: 'image/png', data: PNG }));
    render(MessageView, {
      message: message(0, { content: 'Why is it blue? [Image #1]', attachments: [attachment()] }),
      fetchAttachment,
    });
    const thumb = await screen.findByTestId('attachment-image');
    expect(fetchAttachment).toHaveBeenCalledWith(0, 0);
    expect(thumb.querySelector('img')!.getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(screen.getByTestId('typed').textContent).toBe('Why is it blue? [Image #1]');
    await fireEvent.click(thumb);
    expect(screen.getByTestId('attachment-enlarged').querySelector('img')!.getAttribute('src')).toContain('data:');
    await fireEvent.keyDown(screen.getByTestId('attachment-enlarged'), { key: 'Escape' });
    expect(screen.queryByTestId('attachment-enlarged')).toBeNull();
  });

  it('documents, remote images and images that cannot be read are named chips', async () => {
    const fetchAttachment = vi.fn(async () => {
      throw { kind: 'invalid-input', message: 'image 2 is not the image/png it claims to be' };
    });
    render(MessageView, {
      message: message(0, {
        content: 'Compare',
        attachments: [
          attachment({ kind: 'document', mediaType: 'application/pdf', title: 'spec.pdf', viewable: false }),
          attachment({ viewable: false, bytes: null, reference: 'https://example.com/a.png', index: 1 }),
          attachment({ index: 2 }),
        ],
      }),
      fetchAttachment,
    });
    await waitFor(() => expect(screen.getAllByTestId('attachment-chip')).toHaveLength(3));
    const chips = screen.getAllByTestId('attachment-chip');
    expect(chips[0].textContent).toContain('spec.pdf');
    expect(chips[1].getAttribute('title')).toContain('not loaded');
    expect(chips[2].getAttribute('title')).toContain('claims to be');
    expect(fetchAttachment).toHaveBeenCalledTimes(1);
    expect(document.querySelector('img')).toBeNull();
  });

  it('an image-only prompt shows its image and no empty text', async () => {
    render(MessageView, {
      message: message(0, { content: '', attachments: [attachment()] }),
      fetchAttachment: async () => ({ mediaType: 'image/png', data: PNG }),
    });
    await screen.findByTestId('attachment-image');
    expect(screen.queryByTestId('typed')).toBeNull();
    expect(document.querySelector('.bubble')).toBeNull();
  });
});

describe('thinking', () => {
  it('opens without the blank lines the model put around it', async () => {
    render(MessageView, {
      message: message(1, { role: 'assistant', content: 'ok', thinking: '\n\n  Let me look.\n\n' }),
    });
    await fireEvent.click(screen.getByText('Thinking'));
    expect(screen.getByTestId('thinking-body').textContent).toBe('Let me look.');
  });
});

describe('a typed prompt', () => {
  it('shows control characters as visible marks, never as boxes or as commands', () => {
    const content = 'colour \u001b[31mred\u001b[0m,\ta bell\u0007,\r\nnext line, \u202eevil\u202c, del\u007f';
    render(MessageView, { props: { message: message(0, { role: 'user', content }) } });
    const shown = screen.getByTestId('typed').textContent;
    expect(shown).toBe('colour ␛[31mred␛[0m,\ta bell␇,\nnext line, \\u{202e}evil\\u{202c}, del␡');
  });
});
