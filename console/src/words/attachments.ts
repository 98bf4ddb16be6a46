/** The words of attachments: the composer's files and a message's files. In the first load, with the composer. */
export const en = {
	'attach.button': 'Attach files',
	'attach.input': 'Choose files',
	'attach.drop': 'Drop files to attach them',
	'attach.remove': 'Remove {name}',
	'attach.uploading': 'Uploading {name}',
	'attach.type': '“{name}” cannot be sent: only PNG, JPEG, GIF or WebP images and PDF documents are taken.',
	'attach.size': '“{name}” cannot be sent: it is larger than {mb} MB.',
	'attach.count': 'At most {n} files go in one send.',
	'attach.failed': '“{name}” was not sent: {reason}',
	'attach.files': 'Files',
};

export const pt: Partial<Record<keyof typeof en, string>> = {
	'attach.button': 'Anexar arquivos',
	'attach.input': 'Escolher arquivos',
	'attach.drop': 'Solte os arquivos para anexá-los',
	'attach.remove': 'Remover {name}',
	'attach.uploading': 'Enviando {name}',
	'attach.type': '“{name}” não pode ser enviado: só imagens PNG, JPEG, GIF ou WebP e documentos PDF.',
	'attach.size': '“{name}” não pode ser enviado: tem mais de {mb} MB.',
	'attach.count': 'No máximo {n} arquivos por envio.',
	'attach.failed': '“{name}” não foi enviado: {reason}',
	'attach.files': 'Arquivos',
};
